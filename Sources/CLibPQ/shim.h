#ifndef PAYRUN_CLIBPQ_SHIM_H
#define PAYRUN_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#include <poll.h>

/* Error-field codes of PQresultErrorField (postgres_ext.h defines them as char literals,
   which Swift does not import reliably). */
static inline int payrun_pg_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int payrun_pg_diag_message(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int payrun_pg_diag_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
static inline int payrun_pg_diag_hint(void) { return PG_DIAG_MESSAGE_HINT; }
static inline int payrun_pg_diag_constraint(void) { return PG_DIAG_CONSTRAINT_NAME; }
static inline int payrun_pg_diag_table(void) { return PG_DIAG_TABLE_NAME; }
static inline int payrun_pg_diag_column(void) { return PG_DIAG_COLUMN_NAME; }
static inline int payrun_pg_diag_severity(void) { return PG_DIAG_SEVERITY_NONLOCALIZED; }

static void payrun_pg_ignore_notice(void *arg, const char *message) { (void)arg; (void)message; }

/* Drops NOTICE/WARNING messages instead of printing them on stderr (libpq's default). */
static inline void payrun_pg_silence_notices(PGconn *conn) {
    PQsetNoticeProcessor(conn, payrun_pg_ignore_notice, NULL);
}

/* Waits until the connection's socket is readable; returns poll()'s result
   (1 readable, 0 timeout, -1 error with errno). */
static inline int payrun_pg_wait_readable(int socket, int timeout_ms) {
    struct pollfd fd;
    fd.fd = socket;
    fd.events = POLLIN;
    fd.revents = 0;
    return poll(&fd, 1, timeout_ms);
}
#endif
