print("x")
error({code = 1})
