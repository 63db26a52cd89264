""""""ensors.
 d