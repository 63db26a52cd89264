x = 1 +
y = 2
for i in range(3):
    break
return x
