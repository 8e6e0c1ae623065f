-- What a `groundcheck reverify --write` job covers: 'all' its runs, or 'new', only the runs
-- with rows that had no verdict under its policy when it started (the job after a finished
-- one, so that a recurring job verifies the rows added since). NULL: 'all' (earlier jobs).
ALTER TABLE reverify_checkpoint ADD COLUMN scope VARCHAR(8);
