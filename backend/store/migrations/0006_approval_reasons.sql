-- Why a call asked, as a code every locale can phrase (approval.reasons.<code>) and its
-- parameters; ask_reason keeps the English text for the model and the logs.
ALTER TABLE approval_requests ADD COLUMN ask_reason_code TEXT NOT NULL DEFAULT '';
ALTER TABLE approval_requests ADD COLUMN ask_reason_params TEXT NOT NULL DEFAULT '{}';
