# Reduces an ibnetdiscover / ibsim net file to sorted-comparable lines:
#   NODE <Switch|Ca> <nports> <id> <description>
#   LINK <id>[<port>] <peer id>[<peer port>] <width x speed>
# so a generated file and what ibnetdiscover reports of it can be compared with diff.
/^(Switch|Ca)[ \t]/ {
  match($0, /"[^"]+"/); id = substr($0, RSTART, RLENGTH)
  desc = ""
  if (match($0, /# "[^"]*"/)) desc = substr($0, RSTART + 2, RLENGTH - 2)
  cur = id
  print "NODE", $1, $2, id, desc
  next
}
/^\[[0-9]+\]/ && cur != "" {
  line = $0
  gsub(/\([0-9a-fA-F]+\)/, "", line)   # port GUIDs
  match(line, /^\[[0-9]+\]/); lport = substr(line, RSTART, RLENGTH)
  rest = substr(line, RSTART + RLENGTH)
  match(rest, /"[^"]+"\[[0-9]+\]/); peer = substr(rest, RSTART, RLENGTH)
  print "LINK", cur lport, peer, $NF
  next
}
/^$/ { cur = "" }
