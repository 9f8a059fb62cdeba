function d = m2cu_undigits(s, base, who)
%M2CU_UNDIGITS  The number the digits in s write in base (2 or 16): bin2dec and hex2dec.
if ~ischar(s)
  error([who ': S must be a string or cellstring']);
end
if size(s, 1) > 1
  error(['m2cu:' who], ['m2cu: ' who ' of a char matrix (a column of numbers) is not supported yet']);
end
d = 0;
seen = false;
for k = 1:numel(s)
  c = s(k);
  if c == ' '
    continue
  end
  if c >= '0' && c <= '9'
    v = c - '0';
  elseif c >= 'A' && c <= 'F'
    v = c - 'A' + 10;
  elseif c >= 'a' && c <= 'f'
    v = c - 'a' + 10;
  else
    v = base;
  end
  if v >= base
    d = NaN;
    return
  end
  d = d * base + v;
  seen = true;
end
if ~seen
  d = NaN;
end
end
