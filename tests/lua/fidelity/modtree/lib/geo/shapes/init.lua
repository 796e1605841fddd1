local base = (...):match("^(.-)%.shapes$") or "geo"
return {names = {"circle", "square"}, base = base}
