class A:
    x =e:
    b = 2
x = 1
