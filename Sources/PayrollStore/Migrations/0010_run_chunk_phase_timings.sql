-- 0010_run_chunk_phase_timings.sql — where each chunk's time went, kept with the chunk.
--
-- Filled by the chunk job's transaction (RunFinalizer.completeChunk, from ChunkPhaseTimings), in
-- the same UPDATE that marks the chunk finished, so they exist exactly when the chunk's payslips
-- do. Microseconds of wall-clock time on the worker:
--   load_us     run lookup, COPY of employees, contracts, shifts, absences, the calendar, and
--               building and validating the inputs (with their digests);
--   compute_us  the rules engine over the valid inputs;
--   write_us    locking the run row and storing the payslips;
--   finish_us   from the end of the write up to this UPDATE (run-row lock, chunk digest);
--               finalizing the run, when this chunk is the last, comes after and is not included;
--   shifts_loaded  shift rows read for the chunk.
-- NULL for chunks not finished yet, and for chunks finished by a payrun older than this migration.
-- `payrun bench` and the benchmarks read them; nothing in payrun depends on them.

ALTER TABLE payrun.run_chunks
    ADD COLUMN load_us       bigint  CHECK (load_us >= 0),
    ADD COLUMN compute_us    bigint  CHECK (compute_us >= 0),
    ADD COLUMN write_us      bigint  CHECK (write_us >= 0),
    ADD COLUMN finish_us     bigint  CHECK (finish_us >= 0),
    ADD COLUMN shifts_loaded integer CHECK (shifts_loaded >= 0);
