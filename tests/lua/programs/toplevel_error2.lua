print("start")
error("custom failure")
