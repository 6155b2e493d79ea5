import PostgresClient
import Testing
@testable import PayrollStore

/// 0018 rewrote the rule_set CHECK again (LIKE, then translate of the last seven characters):
/// every string the regex of 0001 accepts and no other, NULL included.
@Suite("Payslip rule_set check (0018)")
struct PayslipRuleSetCheck0018Tests {
    typealias F = StoreFixture

    /// Characters put at every position of a valid value: ASCII digits and their neighbours in the
    /// code table, letters, the format's separators, whitespace, LIKE and regex metacharacters, and
    /// digits that are not ASCII (fullwidth, Arabic-Indic, Devanagari, superscript, mathematical),
    /// Hangul and an emoji (two, three and four UTF-8 bytes).
    static let alphabet = ["0", "1", "5", "9", "/", ":", "a", "K", "k", "r", "R", "-", ".", ",", "_", "%", "\\", " ", "\t", "\n",
                           "*", "[", "$", "^", "０", "٣", "९", "²", "𝟗", "가", "😀"]

    @Test("the 0018 check accepts exactly the strings 0001's regex accepts: every one-character change, insertion and deletion of valid values, lengths 0–13, NULL")
    func sameStringsAsTheRegex() throws {
        let connection = try F.migrated("rule_set_0018")
        let expression = try #require(try connection.queryOne("""
            SELECT pg_get_expr(conbin, conrelid) FROM pg_constraint
             WHERE conrelid = 'payrun.payslips'::regclass AND conname = 'payslips_rule_set_check'
            """)?.string(at: 0))
        #expect(expression.contains("~~") && expression.contains("translate(") && expression.contains("right"))
        let onValue = expression.replacingOccurrences(of: "rule_set", with: "s.rule_set")
        let counts = try #require(try connection.queryOne("""
            WITH valid(v) AS (VALUES ('kr-2026.10'), ('kr-0000.00'), ('kr-9999.99'), ('kr-2025.01')),
                 alphabet(ch) AS (SELECT unnest($1::text[])),
                 s(rule_set) AS (
                     SELECT v FROM valid
                     UNION ALL SELECT NULL
                     -- every character replaced, inserted before, and deleted, at every position
                     UNION ALL SELECT overlay(v PLACING a.ch FROM p FOR 1) FROM valid, alphabet a, generate_series(1, 10) p
                     UNION ALL SELECT overlay(v PLACING a.ch FROM p FOR 0) FROM valid, alphabet a, generate_series(1, 11) p
                     UNION ALL SELECT overlay(v PLACING '' FROM p FOR 1) FROM valid, generate_series(1, 10) p
                     -- two positions changed at once
                     UNION ALL SELECT overlay(overlay('kr-2026.10' PLACING a.ch FROM p FOR 1) PLACING b.ch FROM q FOR 1)
                                FROM alphabet a, alphabet b, generate_series(1, 10) p, generate_series(1, 10) q WHERE p < q
                     -- every length from 0 to 13 of digits, dots and the prefix
                     UNION ALL SELECT left('kr-2026.10999', n) FROM generate_series(0, 13) n
                     UNION ALL SELECT repeat('0', n) FROM generate_series(0, 13) n
                     UNION ALL SELECT 'kr-' || repeat('1', n) || '.' || repeat('2', m) FROM generate_series(0, 6) n, generate_series(0, 4) m)
            SELECT count(*) FILTER (WHERE (s.rule_set ~ '^kr-[0-9]{4}\\.[0-9]{2}$') IS DISTINCT FROM (\(onValue))),
                   count(*) FILTER (WHERE s.rule_set ~ '^kr-[0-9]{4}\\.[0-9]{2}$'),
                   count(*) FILTER (WHERE NOT (s.rule_set ~ '^kr-[0-9]{4}\\.[0-9]{2}$')),
                   count(*) FILTER (WHERE s.rule_set IS NULL AND (\(onValue)) IS NULL),
                   count(*)
              FROM s
            """, [.textArray(Self.alphabet)]))
        #expect(try counts.int64(at: 0) == 0)
        #expect(try counts.int64(at: 1) > 100)  // the valid values and the digit-for-digit changes
        #expect(try counts.int64(at: 2) > 5_000)
        #expect(try counts.int64(at: 3) == 1)
        #expect(try counts.int64(at: 4) > 15_000)
    }

    @Test("payslips with a well-formed rule_set are stored; near misses are refused naming payslips_rule_set_check")
    func storedAndRefused() throws {
        let connection = try F.twoTenants("rule_set_0018_rows")
        for bad in ["kr-2026.1٣", "kr-2026.1", "kr-2026.10.", "kr-2026.1%", "kr-2026_10", "kr-２026.10", "kr-2026.1😀", "kr--026.10"] {
            let error = #expect(throws: PostgresError.self) {
                try connection.execute("UPDATE payrun.payslips SET rule_set = $1 WHERE employee_id = $2", [.text(bad), .int(F.employeeA)])
            }
            #expect(error?.kind == .checkViolation)
            #expect(error?.constraint == "payslips_rule_set_check")
        }
        for good in ["kr-0000.00", "kr-9999.99", "kr-2026.12"] {
            try connection.execute("UPDATE payrun.payslips SET rule_set = $1 WHERE employee_id = $2", [.text(good), .int(F.employeeA)])
            #expect(try connection.queryOne("SELECT rule_set FROM payrun.payslips WHERE employee_id = $1", [.int(F.employeeA)])?.string(at: 0) == good)
        }
    }
}
