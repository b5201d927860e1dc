-- A window whose history cold storage moved out of transcript_events (spec §3.7): the events are in
-- cold-archive.jsonl, which the tests compress and store as a file archive (sessions/cold/<sha256>.jsonl.zst)
-- or in archive_blob, inserting the session_transcript_cold_archives row themselves (its hash is of those bytes).
INSERT INTO conversations(conversation_id,channel,account_id,kind,peer_id,delivery_target,created_at,updated_at)
VALUES('conv-tg-garden','telegram','default','group','-100200300','telegram:-100200300',1775152800000,1775152812000);
INSERT INTO session_windows(session_id,session_key,reason,session_scope,created_at,updated_at,started_at,status,chat_type,channel,account_id,primary_conversation_id,display_name)
VALUES('019ea0c1-2b3c-7d4e-8f50-6a7b8c9d0e1f','agent:main:telegram:group:-100200300','initial','group',1775152800000,1775152812000,1775152800000,'done','group','telegram','default','conv-tg-garden','Garden group');
