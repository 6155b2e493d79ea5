-- 0020_contract_load_fields.sql — each contract keeps the fields the chunk loader reads, ready to send.
--
-- Why. The month-end reads every contract of the period (one per employee) by binary COPY. Its 26
-- fields (ChunkLoader.ContractRow.columnsSQL: defaults sent as NULL, schedule minutes in pairs)
-- cost the server a column fetch, an expression and, for each non-NULL field, a send function with
-- its own buffer, per row: COPY of the 27,382 contracts of the largest tenant of the 100,000-employee
-- bench store to /dev/null took 42–45 ms (a fresh copy of the table, 5 runs; 53–75 ms on the bench
-- table itself) against 19–20 ms for the same rows as two columns (the employee id and one bytea),
-- i.e. ≈ 0.9 µs less server CPU per contract, ≈ 0.09 CPU-s per 100,000-employee month-end — work
-- the COPY floor of `payrun bench` does not have (benchmarks/RESULTS.md, session 12).
--
-- What changes. A stored generated column `load_fields` holds exactly the bytes those 26 fields make
-- in a binary COPY row (without the row's field count): for each field a 4-byte big-endian length
-- (-1 for NULL) and the value in the type's binary send format. The loader reads `employee_id,
-- load_fields` and decodes the bytes with the same field reader as before (BinaryCopyRow over the
-- field's bytes), so a stored value reads back exactly as before, including texts a CHECK would
-- refuse (a broken import) and the int4 extremes of the packed schedule pairs
-- (ChunkLoaderColumnsTests compares, row by row, these bytes with what COPY sends for columnsSQL).
-- PostgreSQL computes the column on every INSERT and UPDATE; writers never name it.
--
-- The expression uses immutable functions only, as a generated column must: the int/date/bool send
-- functions (fixed byte layouts, no session setting involved); texts as their UTF-8 bytes through
-- `replace(t, '\', '\\')::bytea` (bytea's escape input turns each doubled backslash back into one
-- and takes every other byte as it is: the bytes of the stored text, in the server encoding, UTF8 —
-- not textsend, which converts to the client's encoding and is only stable); `NULLIF(t COLLATE "C",
-- default)` compares bytes, as columnsSQL does. Every part is non-NULL (coalesce to the NULL length
-- word), so the column is never NULL.
--
-- Cost: ≈ 170 bytes more per contract row (+19 MB on the 100,000-employee bench store's 1.15 GB).
-- Adding the column rewrites payrun.contracts once, under ACCESS EXCLUSIVE.
ALTER TABLE payrun.contracts ADD COLUMN load_fields bytea GENERATED ALWAYS AS (
           coalesce('\x00000008'::bytea || int8send(id), '\xffffffff'::bytea)
        || coalesce('\x00000004'::bytea || date_send(effective_from), '\xffffffff'::bytea)
        || coalesce('\x00000004'::bytea || date_send(effective_to_exclusive), '\xffffffff'::bytea)
        || coalesce(int4send(octet_length(wage_type)) || replace(wage_type, '\', '\\')::bytea, '\xffffffff'::bytea)
        || coalesce('\x00000008'::bytea || int8send(wage_won), '\xffffffff'::bytea)
        || coalesce('\x00000008'::bytea || int8send((scheduled_mon_minutes::int8 << 32) | (scheduled_tue_minutes::int8 & 4294967295)), '\xffffffff'::bytea)
        || coalesce('\x00000008'::bytea || int8send((scheduled_wed_minutes::int8 << 32) | (scheduled_thu_minutes::int8 & 4294967295)), '\xffffffff'::bytea)
        || coalesce('\x00000008'::bytea || int8send((scheduled_fri_minutes::int8 << 32) | (scheduled_sat_minutes::int8 & 4294967295)), '\xffffffff'::bytea)
        || coalesce('\x00000004'::bytea || int4send(NULLIF(scheduled_sun_minutes, 0)), '\xffffffff'::bytea)
        || coalesce(int4send(octet_length(week_start)) || replace(week_start, '\', '\\')::bytea, '\xffffffff'::bytea)
        || coalesce(int4send(octet_length(NULLIF(weekly_holiday COLLATE "C", 'sun'))) || replace(NULLIF(weekly_holiday COLLATE "C", 'sun'), '\', '\\')::bytea, '\xffffffff'::bytea)
        || coalesce('\x00000004'::bytea || int4send(default_break_minutes), '\xffffffff'::bytea)
        || coalesce(int4send(octet_length(NULLIF(weekly_allowance COLLATE "C", 'statutory'))) || replace(NULLIF(weekly_allowance COLLATE "C", 'statutory'), '\', '\\')::bytea, '\xffffffff'::bytea)
        || coalesce(int4send(octet_length(NULLIF(night_allowance COLLATE "C", 'statutory'))) || replace(NULLIF(night_allowance COLLATE "C", 'statutory'), '\', '\\')::bytea, '\xffffffff'::bytea)
        || coalesce(int4send(octet_length(NULLIF(overtime_allowance COLLATE "C", 'statutory'))) || replace(NULLIF(overtime_allowance COLLATE "C", 'statutory'), '\', '\\')::bytea, '\xffffffff'::bytea)
        || coalesce(int4send(octet_length(NULLIF(holiday_allowance COLLATE "C", 'statutory'))) || replace(NULLIF(holiday_allowance COLLATE "C", 'statutory'), '\', '\\')::bytea, '\xffffffff'::bytea)
        || coalesce('\x00000001'::bytea || boolsend(NULLIF(insures_national_pension, true)), '\xffffffff'::bytea)
        || coalesce('\x00000001'::bytea || boolsend(NULLIF(insures_health, true)), '\xffffffff'::bytea)
        || coalesce('\x00000001'::bytea || boolsend(NULLIF(insures_employment, true)), '\xffffffff'::bytea)
        || coalesce('\x00000008'::bytea || int8send(national_pension_base_won), '\xffffffff'::bytea)
        || coalesce('\x00000008'::bytea || int8send(health_base_won), '\xffffffff'::bytea)
        || coalesce('\x00000008'::bytea || int8send(employment_base_won), '\xffffffff'::bytea)
        || coalesce(int4send(octet_length(NULLIF(tax COLLATE "C", 'simplified'))) || replace(NULLIF(tax COLLATE "C", 'simplified'), '\', '\\')::bytea, '\xffffffff'::bytea)
        || coalesce('\x00000008'::bytea || int8send(NULLIF(non_taxable_meals_won, 0)), '\xffffffff'::bytea)
        || coalesce('\x00000008'::bytea || int8send(NULLIF(non_taxable_car_allowance_won, 0)), '\xffffffff'::bytea)
        || coalesce('\x00000008'::bytea || int8send(NULLIF(non_taxable_childcare_won, 0)), '\xffffffff'::bytea)
    ) STORED;
