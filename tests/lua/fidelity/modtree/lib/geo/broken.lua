return {
  x = ,
}
