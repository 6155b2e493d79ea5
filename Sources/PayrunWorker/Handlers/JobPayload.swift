import PayrollStore
import JobQueue
import PayrollRules

/// Reads the JSON object payload of a payroll job; malformed payloads fail the job permanently.
struct JobPayload {
    let object: JSONObject
    let job: ClaimedJob

    init(_ job: ClaimedJob) throws {
        self.job = job
        guard case .object(let object)? = try? JSONParser.parse(job.payload) else {
            throw JobFailure.permanent("\(job.kind) job \(job.id): payload is not a JSON object: \(job.payload.prefix(200))")
        }
        self.object = object
    }

    func int(_ key: String) throws -> Int64 { try int(key, in: object) }

    /// The integer `key` of `object` (the payload or one of its nested objects).
    func int(_ key: String, in object: JSONObject) throws -> Int64 {
        guard case .number(let n)? = object[key], let value = n.int64 else {
            throw JobFailure.permanent("\(job.kind) job \(job.id): payload needs an integer '\(key)': \(job.payload.prefix(200))")
        }
        return value
    }

    func date(_ key: String) throws -> LocalDate {
        guard case .string(let text)? = object[key], let date = LocalDate(iso: text) else {
            throw JobFailure.permanent("\(job.kind) job \(job.id): payload needs a date '\(key)' (YYYY-MM-DD): \(job.payload.prefix(200))")
        }
        return date
    }

    func optionalString(_ key: String) -> String? {
        if case .string(let text)? = object[key] { return text }
        return nil
    }
}

extension JobPayload {
    /// The integer array `key`, or nil when the payload has no such key; anything else fails the job permanently.
    func optionalInts(_ key: String) throws -> [Int64]? {
        guard let value = object[key] else { return nil }
        guard case .array(let items) = value else {
            throw JobFailure.permanent("\(job.kind) job \(job.id): '\(key)' must be an array of integers: \(job.payload.prefix(200))")
        }
        return try items.map { item in
            guard case .number(let n) = item, let v = n.int64 else {
                throw JobFailure.permanent("\(job.kind) job \(job.id): '\(key)' must be an array of integers: \(job.payload.prefix(200))")
            }
            return v
        }
    }

    /// The object array `key` as payloads of their own, or nil when the payload has no such key.
    func optionalObjects(_ key: String) throws -> [JSONObject]? {
        guard let value = object[key] else { return nil }
        guard case .array(let items) = value else {
            throw JobFailure.permanent("\(job.kind) job \(job.id): '\(key)' must be an array of objects: \(job.payload.prefix(200))")
        }
        return try items.map { item in
            guard case .object(let o) = item else {
                throw JobFailure.permanent("\(job.kind) job \(job.id): '\(key)' must be an array of objects: \(job.payload.prefix(200))")
            }
            return o
        }
    }
}
