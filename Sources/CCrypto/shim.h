#ifndef PAYRUN_CCRYPTO_SHIM_H
#define PAYRUN_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto (package libssl-dev, which libpq-dev depends on): only SHA-256, which uses
   the CPU's SHA extensions where present. */
#include <stddef.h>
#include <openssl/sha.h>

/* SHA-256 of `count` bytes at `bytes` into the 32 bytes at `digest`, straight through the
   low-level SHA256_Init/Update/Final on a stack context. OpenSSL 3's one-shot SHA256() goes
   through EVP_Q_digest, which looks the algorithm up in the provider registry (EVP_MD_fetch,
   with its locks) and allocates and frees a digest context on every call: about a fifth of the
   cost of hashing a payslip input (≈ 6,000 of ≈ 44,000 instructions under callgrind). The
   low-level functions are deprecated in OpenSSL 3 but present; the deprecation is silenced
   here only, and their output is the same FIPS 180-4 digest (the compression function is the
   same code, CPU extensions included). */
static inline void payrun_sha256(const unsigned char *bytes, size_t count, unsigned char *digest) {
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#endif
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, bytes, count);
    SHA256_Final(digest, &context);
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
}
#endif
