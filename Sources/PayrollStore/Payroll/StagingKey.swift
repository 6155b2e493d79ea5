/// The key under which one transaction's payslips are staged (`PayslipWriter.stagingTable`): the
/// job's lease token (a UUID), or a random one outside jobs.
public struct StagingKey: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (hex, hyphens optional); nil if malformed.
    public init?(uuid text: String) {
        var bytes: [UInt8] = []
        var high: UInt8? = nil
        for c in text.utf8 where c != UInt8(ascii: "-") {
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let h = high { bytes.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        guard bytes.count == 16, high == nil else { return nil }
        self.bytes = bytes
    }

    /// A random (version 4) key.
    public static func random() -> StagingKey {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return StagingKey(bytes: bytes)
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    public var description: String {
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let c = Array(hex)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }
}
