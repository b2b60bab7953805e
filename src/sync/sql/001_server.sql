-- cmem server schema v1 (`cmem sync init`). One table holds every shared row of every device:
-- its global identity (device, table, the id it has on that device), its project, and its
-- newest revision as a JSON document. `seq` orders revisions for pulls; pushes take an
-- advisory lock for their transaction, so revisions commit in `seq` order and a pull that
-- has seen `seq` N has seen every revision numbered below N.
CREATE SEQUENCE cmem.row_seq;

CREATE TABLE cmem.rows (
    device     text        NOT NULL,
    tbl        text        NOT NULL,
    local_id   bigint      NOT NULL,
    project    text        NOT NULL,
    deleted    boolean     NOT NULL DEFAULT false,  -- a tombstone: forgotten on its device
    doc        jsonb,                               -- NULL for a tombstone
    hash       text        NOT NULL,
    seq        bigint      NOT NULL DEFAULT nextval('cmem.row_seq'),
    writer     text        NOT NULL,                -- the device that wrote this revision
    written_by name        NOT NULL DEFAULT current_user,
    written_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (device, tbl, local_id)
);
CREATE INDEX rows_seq ON cmem.rows (seq);
CREATE INDEX rows_project ON cmem.rows (lower(project));

CREATE TABLE cmem.devices (
    device    text        PRIMARY KEY,
    name      text        NOT NULL,
    role      name        NOT NULL DEFAULT current_user,
    last_seen timestamptz NOT NULL DEFAULT now()
);

-- Which database role may read and write which project (`cmem sync grant ROLE PROJECT`);
-- `*` grants every project. Only the schema's owner changes it.
CREATE TABLE cmem.grants (
    role    name NOT NULL,
    project text NOT NULL,
    PRIMARY KEY (role, project)
);

-- Runs as the owner so that roles need no access to the grants table; `who` is the caller's
-- current_user, passed by the policies (inside the function current_user is the owner).
CREATE FUNCTION cmem.may_see(p text, who name) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT EXISTS (
        SELECT 1 FROM cmem.grants g JOIN pg_catalog.pg_roles r ON r.rolname = g.role
        WHERE (g.project = lower(p) OR g.project = '*')
          AND pg_catalog.pg_has_role(who, r.oid, 'MEMBER'))
$$;

-- The owner is not subject to these (it administers the server); every other role sees and
-- writes only the rows of projects granted to it or to a role it belongs to.
ALTER TABLE cmem.rows ENABLE ROW LEVEL SECURITY;
CREATE POLICY rows_select ON cmem.rows FOR SELECT USING (cmem.may_see(project, current_user));
CREATE POLICY rows_insert ON cmem.rows FOR INSERT WITH CHECK (cmem.may_see(project, current_user));
CREATE POLICY rows_update ON cmem.rows FOR UPDATE USING (cmem.may_see(project, current_user))
    WITH CHECK (cmem.may_see(project, current_user));
