/// Constants of PostgreSQL's binary COPY format
/// (https://www.postgresql.org/docs/15/sql-copy.html#id-1.9.3.55.9.4).
enum BinaryCopyFormat {
    /// `PGCOPY\n\377\r\n\0`.
    static let signature: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]
    /// Signature + 32-bit flags + 32-bit header-extension length.
    static let headerBytes = 19
    /// Signature, flags 0, no extension.
    static let header: [UInt8] = signature + [0, 0, 0, 0, 0, 0, 0, 0]
    /// The file trailer: a 16-bit field count of -1.
    static let trailer: [UInt8] = [0xFF, 0xFF]
}
