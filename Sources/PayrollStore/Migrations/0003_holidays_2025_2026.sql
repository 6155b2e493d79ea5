-- 0003_holidays_2025_2026.sql — the national holiday calendar for 2025 and 2026.
--
-- 관공서 공휴일 without Sundays (excluded by 근로기준법 시행령 §30②), 대체·임시공휴일, election days
-- and 노동절 / 근로자의 날, from rules spec §1.4.4 ([S8] hyunbinseo/holidays-kr, built from the
-- 우주항공청 월력요항). Identical to HolidayCalendar.korea in Sources/PayrollRules (a test in
-- PayrollStoreTests compares the two row by row). A new year is a new migration with its rows
-- and the same entries added to HolidayCalendar.korea.

INSERT INTO payrun.holidays (holiday_date, kind, name, source) VALUES
    -- 2025
    ('2025-01-01', 'public', '신정', 'rules spec §1.4.4 [S8]'),
    ('2025-01-27', 'temporary', '임시공휴일', 'rules spec §1.4.4 [S8]'),
    ('2025-01-28', 'public', '설날 연휴', 'rules spec §1.4.4 [S8]'),
    ('2025-01-29', 'public', '설날', 'rules spec §1.4.4 [S8]'),
    ('2025-01-30', 'public', '설날 연휴', 'rules spec §1.4.4 [S8]'),
    ('2025-03-01', 'public', '삼일절', 'rules spec §1.4.4 [S8]'),
    ('2025-03-03', 'substitute', '대체공휴일(삼일절)', 'rules spec §1.4.4 [S8]'),
    ('2025-05-01', 'labor_day', '근로자의 날', 'rules spec §1.4.4 [S8]'),
    ('2025-05-05', 'public', '어린이날·부처님오신날', 'rules spec §1.4.4 [S8]'),
    ('2025-05-06', 'substitute', '대체공휴일', 'rules spec §1.4.4 [S8]'),
    ('2025-06-03', 'election', '제21대 대통령선거', 'rules spec §1.4.4 [S8]'),
    ('2025-06-06', 'public', '현충일', 'rules spec §1.4.4 [S8]'),
    ('2025-08-15', 'public', '광복절', 'rules spec §1.4.4 [S8]'),
    ('2025-10-03', 'public', '개천절', 'rules spec §1.4.4 [S8]'),
    ('2025-10-05', 'public', '추석 연휴', 'rules spec §1.4.4 [S8]'),
    ('2025-10-06', 'public', '추석', 'rules spec §1.4.4 [S8]'),
    ('2025-10-07', 'public', '추석 연휴', 'rules spec §1.4.4 [S8]'),
    ('2025-10-08', 'substitute', '대체공휴일(추석)', 'rules spec §1.4.4 [S8]'),
    ('2025-10-09', 'public', '한글날', 'rules spec §1.4.4 [S8]'),
    ('2025-12-25', 'public', '기독탄신일', 'rules spec §1.4.4 [S8]'),
    -- 2026
    ('2026-01-01', 'public', '신정', 'rules spec §1.4.4 [S8]'),
    ('2026-02-16', 'public', '설날 연휴', 'rules spec §1.4.4 [S8]'),
    ('2026-02-17', 'public', '설날', 'rules spec §1.4.4 [S8]'),
    ('2026-02-18', 'public', '설날 연휴', 'rules spec §1.4.4 [S8]'),
    ('2026-03-02', 'substitute', '대체공휴일(삼일절)', 'rules spec §1.4.4 [S8]'),
    ('2026-05-01', 'labor_day', '노동절', 'rules spec §1.4.4 [S8]'),
    ('2026-05-05', 'public', '어린이날', 'rules spec §1.4.4 [S8]'),
    ('2026-05-25', 'substitute', '대체공휴일(부처님오신날)', 'rules spec §1.4.4 [S8]'),
    ('2026-06-03', 'election', '제9회 전국동시지방선거', 'rules spec §1.4.4 [S8]'),
    ('2026-06-06', 'public', '현충일', 'rules spec §1.4.4 [S8]'),
    ('2026-07-17', 'public', '제헌절', 'rules spec §1.4.4 [S8]'),  -- [M] in force per 공휴일법 amendment 2026-01-29
    ('2026-08-15', 'public', '광복절', 'rules spec §1.4.4 [S8]'),
    ('2026-08-17', 'substitute', '대체공휴일(광복절)', 'rules spec §1.4.4 [S8]'),
    ('2026-09-24', 'public', '추석 연휴', 'rules spec §1.4.4 [S8]'),
    ('2026-09-25', 'public', '추석', 'rules spec §1.4.4 [S8]'),
    ('2026-09-26', 'public', '추석 연휴', 'rules spec §1.4.4 [S8]'),
    ('2026-10-03', 'public', '개천절', 'rules spec §1.4.4 [S8]'),
    ('2026-10-05', 'substitute', '대체공휴일(개천절)', 'rules spec §1.4.4 [S8]'),
    ('2026-10-09', 'public', '한글날', 'rules spec §1.4.4 [S8]'),
    ('2026-12-25', 'public', '기독탄신일', 'rules spec §1.4.4 [S8]');
