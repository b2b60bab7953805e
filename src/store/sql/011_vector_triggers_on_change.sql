-- A record's vector goes when its text changes, not whenever an UPDATE names a text column:
-- a sync that rewrites a row with the text it already had (every column is set) no longer drops
-- a vector that still matches it, and needs no stash-and-restore around the UPDATE.
DROP TRIGGER observations_vectors_au;
CREATE TRIGGER observations_vectors_au AFTER UPDATE OF project, title, subtitle, narrative, facts ON observations
WHEN old.project IS NOT new.project OR old.title IS NOT new.title OR old.subtitle IS NOT new.subtitle
  OR old.narrative IS NOT new.narrative OR old.facts IS NOT new.facts
BEGIN
    DELETE FROM record_vectors WHERE kind = 0 AND record_id = old.id;
END;
DROP TRIGGER session_summaries_vectors_au;
CREATE TRIGGER session_summaries_vectors_au AFTER UPDATE OF project, request, investigated, learned, completed, next_steps, notes ON session_summaries
WHEN old.project IS NOT new.project OR old.request IS NOT new.request
  OR old.investigated IS NOT new.investigated OR old.learned IS NOT new.learned
  OR old.completed IS NOT new.completed OR old.next_steps IS NOT new.next_steps
  OR old.notes IS NOT new.notes
BEGIN
    DELETE FROM record_vectors WHERE kind = 1 AND record_id = old.id;
END;
DROP TRIGGER user_prompts_vectors_au;
CREATE TRIGGER user_prompts_vectors_au AFTER UPDATE OF prompt_text, session_id ON user_prompts
WHEN old.prompt_text IS NOT new.prompt_text OR old.session_id IS NOT new.session_id
BEGIN
    DELETE FROM record_vectors WHERE kind = 2 AND record_id = old.id;
END;
