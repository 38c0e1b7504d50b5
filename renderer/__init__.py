"""Board images (Pillow): a pure function from game state to PNG. Coming next."""
