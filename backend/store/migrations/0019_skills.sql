-- Agent skills. A skill is on unless skill_prefs says otherwise (the global switch, by
-- the skill's name); skill_session_prefs is a conversation's own choice, which wins over
-- the global one and goes with the conversation.
CREATE TABLE skill_prefs (
    name    TEXT PRIMARY KEY,
    enabled INTEGER NOT NULL
);

CREATE TABLE skill_session_prefs (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    enabled    INTEGER NOT NULL,
    PRIMARY KEY (session_id, name)
);
