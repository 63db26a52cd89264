class A:
     s
 s