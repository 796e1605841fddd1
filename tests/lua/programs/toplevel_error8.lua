local s = "abc"
print(s:bad())
