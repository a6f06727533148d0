-- Why an audit entry was decided, as a code every locale can phrase and its parameters
-- (a verdict's approval.reasons.<code>, or permissions.audit.reasons.<code> for the
-- approval service's own); reason keeps the English text for export and search. Rows
-- from before have no code and are shown with their text.
ALTER TABLE approval_audit ADD COLUMN reason_code TEXT NOT NULL DEFAULT '';
ALTER TABLE approval_audit ADD COLUMN reason_params TEXT NOT NULL DEFAULT '{}';
