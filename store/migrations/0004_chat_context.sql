-- The context file a chat was last used with in the workbench (its path as given), so
-- `ctxlab --chat ID` opens it again; '' when none was recorded. Exports leave it out.
ALTER TABLE chats ADD COLUMN context_path TEXT NOT NULL DEFAULT '';
