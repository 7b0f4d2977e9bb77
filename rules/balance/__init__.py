"""Balance simulator (issue 17): scripted duels, win-rate tables, CSV and SVG (pure)."""
