-- Demo data for local runs (npm start). Idempotent: every row is inserted only if missing.
INSERT OR IGNORE INTO users (id, email, first_name, last_name, plan)
VALUES ('demoCreator00001', 'demo@apewall.local', 'Demo', 'Creator', 'free');

INSERT OR IGNORE INTO content (id, user_id, title, description, price_cents, pricing_model, minimum_price_cents, category, access_type, file_key, file_name, file_size, file_content_type, created_at)
VALUES ('demoFieldGuide01', 'demoCreator00001', 'The Ape Field Guide', 'A pocket guide to selling anything behind a paywall. Markdown, instant download.', 500, 'fixed', NULL, 'document', 'download', 'demo/ape-field-guide.md', 'ape-field-guide.md', 190, 'text/markdown', 1763800000000);

INSERT OR IGNORE INTO content (id, user_id, title, description, price_cents, pricing_model, minimum_price_cents, category, access_type, link_url, created_at)
VALUES ('demoJungleLink01', 'demoCreator00001', 'Jungle Beats Playlist', 'A private playlist of 40 focus tracks. Pay what you want.', 300, 'pay_what_you_want', 300, 'music', 'link', 'https://example.com/private/jungle-beats', 1763800100000);

INSERT OR IGNORE INTO content (id, user_id, title, description, price_cents, pricing_model, minimum_price_cents, category, access_type, text_content, created_at)
VALUES ('demoBananaText01', 'demoCreator00001', 'Secret Banana Bread Recipe', 'The recipe behind the bakery''s best seller.', 200, 'fixed', NULL, 'other', 'view', 'Mash 3 ripe bananas, mix with 75 g melted butter, 150 g sugar, 1 egg, 1 tsp vanilla, 1 tsp baking soda, a pinch of salt and 190 g flour. Bake 60 minutes at 175 °C.', 1763800200000);

-- A discount code on the field guide: /p/demoFieldGuide01?code=LAUNCH20 shows $4.00 instead of $5.00
-- (npm run bench measures the paywall with and without it).
INSERT OR IGNORE INTO discount_codes (id, user_id, code, kind, percent_off, created_at)
VALUES ('demoCodeLaunch20', 'demoCreator00001', 'LAUNCH20', 'percent', 20, 1763800000000);

-- An order bump on the field guide: its checkout offers "Add Secret Banana Bread Recipe for $1.00".
UPDATE content SET bump_content_id = 'demoBananaText01', bump_price_cents = 100
WHERE id = 'demoFieldGuide01' AND bump_content_id IS NULL AND bump_price_cents IS NULL;
