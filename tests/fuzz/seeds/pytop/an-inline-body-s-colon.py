class A:x:
b=2