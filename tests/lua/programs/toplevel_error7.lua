print("hi")
error("no position", 0)
