"""Release history: an adapter scored over many releases of its library, and the release each finding
appeared in and was fixed in (`deltacheck history`)."""
