-- Tables read by the contract's database endpoints (targets/CONTRACT.md).
-- Deterministic: every value derives from the row number, so each load gives the same data.
-- Idempotent: safe to run twice.
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;

DROP TABLE IF EXISTS documents;
CREATE TABLE documents (
    id         integer PRIMARY KEY,
    queue      text    NOT NULL,
    sender     text    NOT NULL,
    subject    text    NOT NULL,
    body       text    NOT NULL,
    created_at bigint  NOT NULL,
    ttl        integer NOT NULL
);
-- About 420 bytes per row once serialized as JSON (seed 002's message documents).
INSERT INTO documents (id, queue, sender, subject, body, created_at, ttl)
SELECT g,
       'queue-' || lpad((g % 16)::text, 2, '0'),
       'device-' || lpad((g % 997)::text, 4, '0') || '@home.example',
       'status report ' || g,
       left(repeat(md5(g::text) || ' ', 10), 278),
       1700000000 + g * 37,
       3600 + (g % 5) * 600
FROM generate_series(1, 10000) AS g;

DROP TABLE IF EXISTS items;
CREATE TABLE items (
    id          integer PRIMARY KEY,
    name        text    NOT NULL,
    category    text    NOT NULL,
    price_cents integer NOT NULL,
    in_stock    boolean NOT NULL,
    updated_at  bigint  NOT NULL
);
-- About 120 bytes per row as JSON, so the default 10 rows are about 1.2 KB (seed 003).
INSERT INTO items (id, name, category, price_cents, in_stock, updated_at)
SELECT g,
       'item ' || lpad(g::text, 4, '0') || ' ' || substr(md5('item' || g), 1, 12),
       (ARRAY['lighting', 'climate', 'security', 'sensors', 'audio'])[1 + g % 5],
       499 + (g * 7919) % 50000,
       g % 7 <> 0,
       1700000000 + g * 61
FROM generate_series(1, 1000) AS g;

ANALYZE documents;
ANALYZE items;
