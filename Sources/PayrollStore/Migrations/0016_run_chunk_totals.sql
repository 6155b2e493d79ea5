-- 0016_run_chunk_totals.sql — each finished chunk keeps its payslips' totals, so finalizing a run
-- sums its chunks instead of re-reading its payslips.
--
-- Why. A run's totals (gross, non-taxable, taxable, deductions, net, warnings) were aggregated
-- from `payslips` by the job that finished its last chunk. In a month-end `payslips` grows by a
-- row per employee, and autovacuum analyzes it midway: from then on the statistics say a tenant
-- has about one payslip, and the planner scanned and hashed the whole tenant's payslips for
-- every finalizing job (≈ 230 ms each at 1,000,000 employees; month-ends of 98–108 s instead of
-- ≈ 62 s). The chunk's own aggregate (`RunFinalizer.chunkDigestSQL`, run at chunk completion)
-- already reads exactly that chunk's payslips by primary-key range; it now also sums them here,
-- and the run is finalized from its `run_chunks` rows (primary-key prefix, a few rows per run).
--
-- Invariant: a finished chunk's totals are those of the run's payslips in its employee-id range.
-- Kept by chunk completion (sets them), a recalculation (moves the covering chunk by the
-- payslip's difference, and widens the nearest chunk — or adds one — when the employee is in no
-- chunk's range, e.g. hired after planning) and approval (recomputes every finished chunk from
-- the payslips before it sums them). All six are NULL exactly while the chunk is unfinished.

ALTER TABLE payrun.run_chunks
    ADD COLUMN warnings_count       integer CHECK (warnings_count >= 0),
    ADD COLUMN gross_won            bigint,
    ADD COLUMN non_taxable_won      bigint,
    ADD COLUMN taxable_won          bigint,
    ADD COLUMN total_deductions_won bigint,
    ADD COLUMN net_won              bigint;

-- Chunks finished before this migration: their totals from their payslips, in every tenant
-- (row security off: a migrating role that cannot bypass it gets an error, not a partial backfill).
SET LOCAL row_security = off;
UPDATE payrun.run_chunks c
   SET warnings_count = s.warnings, gross_won = s.gross, non_taxable_won = s.non_taxable,
       taxable_won = s.taxable, total_deductions_won = s.deductions, net_won = s.net
  FROM (SELECT c2.tenant_id, c2.run_id, c2.chunk_no,
               coalesce(sum(jsonb_array_length(p.warnings)), 0) AS warnings,
               coalesce(sum(p.gross_won), 0) AS gross, coalesce(sum(p.non_taxable_won), 0) AS non_taxable,
               coalesce(sum(p.taxable_won), 0) AS taxable, coalesce(sum(p.total_deductions_won), 0) AS deductions,
               coalesce(sum(p.net_won), 0) AS net
          FROM payrun.run_chunks c2
          LEFT JOIN payrun.payslips p
            ON p.tenant_id = c2.tenant_id AND p.run_id = c2.run_id
           AND p.employee_id BETWEEN c2.employee_id_from AND c2.employee_id_to
         WHERE c2.finished_at IS NOT NULL
         GROUP BY c2.tenant_id, c2.run_id, c2.chunk_no) AS s
 WHERE c.tenant_id = s.tenant_id AND c.run_id = s.run_id AND c.chunk_no = s.chunk_no;

ALTER TABLE payrun.run_chunks
    ADD CONSTRAINT run_chunks_finished_has_totals CHECK (
        (finished_at IS NULL) = (warnings_count IS NULL) AND (finished_at IS NULL) = (gross_won IS NULL)
        AND (finished_at IS NULL) = (non_taxable_won IS NULL) AND (finished_at IS NULL) = (taxable_won IS NULL)
        AND (finished_at IS NULL) = (total_deductions_won IS NULL) AND (finished_at IS NULL) = (net_won IS NULL));
