/// Hands a string's UTF-8 bytes to a decoder that reads buffers, keeping its typed error.
enum UTF8Text {
    static func withBytes<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) throws(PayrollError) -> R) throws(PayrollError) -> R {
        var text = text
        let result: Result<R, PayrollError> = text.withUTF8 { bytes in
            do throws(PayrollError) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
