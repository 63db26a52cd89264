)
 for block in self.:block.t