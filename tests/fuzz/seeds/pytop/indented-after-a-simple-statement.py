""""""
 try:imports
except :