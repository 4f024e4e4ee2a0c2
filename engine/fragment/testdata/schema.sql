CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  total_amount NUMERIC NOT NULL -- in "USD" & <cents>

);
