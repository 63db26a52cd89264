class B():
  def g():s
  else:s