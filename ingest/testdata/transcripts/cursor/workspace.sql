-- workspaceStorage/<hash>/state.vscdb of /home/dev/acme-api: its composers.
CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
INSERT INTO ItemTable(key,value) VALUES ('composer.composerData','{"allComposers": [{"composerId": "9a8b7c6d-1111-4222-8333-444455556666", "name": "Add retry to the uploader", "createdAt": 1777972500000}], "selectedComposerIds": ["9a8b7c6d-1111-4222-8333-444455556666"]}');
