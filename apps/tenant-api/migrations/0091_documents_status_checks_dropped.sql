-- documents.status_checks was created with the table (0002) to count status queries, and nothing has ever
-- written or read it: the status job's runs are counted by its row in the jobs table (attempts), from which
-- its backoff is computed. A column that always says 0 misleads whoever reads the table. Dropping it changes
-- only the catalogue; the old rows' bytes go when they are next rewritten.
ALTER TABLE documents DROP COLUMN status_checks;
