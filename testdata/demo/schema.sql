CREATE TABLE customers (id INTEGER PRIMARY KEY, plan TEXT, mrr_cents INTEGER);
CREATE TABLE events (customer_id INTEGER, kind TEXT, at TIMESTAMP);
