#
b=
b