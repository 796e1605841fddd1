local t = {1, 2
print(t)
