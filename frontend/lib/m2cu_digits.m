function s = m2cu_digits(d, base, len, who)
%M2CU_DIGITS  The digits of d in base (2 or 16), at least len of them: dec2bin and dec2hex.
symbols = '0123456789ABCDEF';
if ~isscalar(d)
  error(['m2cu:' who], ['m2cu: ' who ' of an array (rows of text) is not supported yet']);
end
if d < 0 || d ~= floor(d) || ~isfinite(d)
  error([who ': input must be real non-negative integers']);
end
if d >= 2^53
  error(['m2cu:' who], ['m2cu: ' who ' of a number of 2^53 or more is not supported yet']);
end
v = double(d);
s = '';
while v > 0
  r = mod(v, base);
  s = [symbols(r + 1), s];
  v = (v - r) / base;
end
if isempty(s)
  s = '0';
end
while numel(s) < len
  s = ['0', s];
end
end
