#!/bin/bash
if then fi
(( ]] $( `" 'unterminated
cat <<EOF
no end
