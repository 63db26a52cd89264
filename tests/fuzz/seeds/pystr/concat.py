x = ('a'  # c
     b'b' f'{y}')
