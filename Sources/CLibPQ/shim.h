#ifndef PAYRUN_CLIBPQ_SHIM_H
#define PAYRUN_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
