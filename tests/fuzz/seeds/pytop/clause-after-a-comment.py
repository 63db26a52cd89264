if a:
    b = 1
else:
    b = 2
x = 1
#--
if a:
    b = 1


# c
else:
    b = 2
x = 1
