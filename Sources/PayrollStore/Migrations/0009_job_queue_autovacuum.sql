-- 0009_job_queue_autovacuum.sql — keep payrun.jobs vacuumed (queue-worker).
--
-- A queue table churns: every claim and completion leaves a dead row version, and the partial
-- indexes (jobs_claimable_by_tenant, jobs_claimable, jobs_leases) keep entries for them until
-- VACUUM, which every claim then has to step over: right after 200,000 jobs an idle claim took
-- ~20 ms instead of ~3 ms. Vacuum it after 1 % of its rows (or 1,000) changed instead of the
-- default 20 %, without cost-based throttling.
ALTER TABLE payrun.jobs SET (
    autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0, autovacuum_analyze_scale_factor = 0.02);
