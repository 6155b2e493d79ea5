import CCrypto

/// SHA-256 (FIPS 180-4): fingerprints migration files (an applied migration whose file was edited
/// afterwards is noticed) and every payslip's input (`InputDigest`), so it runs once per employee
/// of every month-end. It is OpenSSL's libcrypto SHA-256 (`payrun_sha256` in the CCrypto shim:
/// the low-level functions on a stack context, without the one-shot `SHA256`'s per-call provider
/// look-up and context allocation), which uses the CPU's SHA extensions where present: in a profile of the 100,000-employee month-end the portable Swift
/// version it replaced took 4.3 % of all CPU, libcrypto's under 0.1 % (`benchmarks/RESULTS.md`,
/// session 3). libcrypto comes with libpq-dev (libssl-dev), which payrun needs anyway. Not used
/// for secrets.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        if let digest = bytes.withContiguousStorageIfAvailable({ digest(buffer: UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(bytes).withUnsafeBytes { digest(buffer: $0) }
    }

    private static func digest(buffer: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { output, initialized in
            // SHA256 never fails for a valid buffer; an empty input has no base address, which
            // OpenSSL accepts together with a length of 0.
            payrun_sha256(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count, output.baseAddress)
            initialized = 32
        }
    }

    /// The digest as 64 lower-case hexadecimal digits.
    public static func hexDigest<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest(bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
