class A:
    """Doc."""

    x = 1

    @property
    # c
    def f(self):
        return 1


class B(A):
  def g(self):
    if a:
      pass
    else:
      pass
#--
class A:
    """Doc."""

    x = 2

    @property
    # c
    def f(self):
        return 1


class B(A):
  def g(self):
    if a:
      pass
  else:
    pass
