#ifndef PAYRUN_CCRYPTO_SHIM_H
#define PAYRUN_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto (package libssl-dev, which libpq-dev depends on): only its one-shot
   SHA-256, which uses the CPU's SHA extensions where present. */
#include <openssl/sha.h>
#endif
