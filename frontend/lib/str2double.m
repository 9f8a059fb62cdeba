function x = str2double(s)
%STR2DOUBLE  The number a text writes, as Octave 7.3 reads it: blanks around it, commas
% dropped, a sign (and a second one, as Octave takes `--1` for 1), digits with a point and an
% exponent, or Inf in any case; NaN for any other text, an empty one, or a value that is not
% text. The value is exact (correctly rounded) for up to 15 significant digits and a power of
% ten within 22 of them; other numbers, and complex ones (`1+2i`), stop with m2cu's error.
x = NaN;
if ~ischar(s) || isempty(s)
  return
end
if size(s, 1) > 1
  error('m2cu:str2double', 'm2cu: str2double of a char matrix (one number per row) is not supported yet; convert one row at a time');
end
t = blanks(0);
for c = 1:numel(s)
  if s(c) ~= ','
    t(end+1) = s(c);
  end
end
n = numel(t);
k = skip_blanks(t, 1);
negative = false;
if k <= n && (t(k) == '+' || t(k) == '-')
  negative = t(k) == '-';
  k = skip_blanks(t, k + 1);
end
if k + 2 <= n && lower(t(k)) == 'i' && lower(t(k + 1)) == 'n' && lower(t(k + 2)) == 'f'
  value = Inf;
  k = k + 3;
else
  [value, k, ok] = read_number(t, k);
  if ~ok
    not_complex(t);
    return
  end
end
k = skip_blanks(t, k);
if k <= n
  not_complex(t);
  return
end
if negative
  value = -value;
end
x = value;
end

function k = skip_blanks(t, k)
% The first place from k that is not whitespace.
while k <= numel(t) && (t(k) == ' ' || (t(k) >= 9 && t(k) <= 13))
  k = k + 1;
end
end

function not_complex(t)
% A text that is no real number is NaN, unless Octave may read it as a complex number (an i
% or j beside digits, or alone), which stops with m2cu's error.
letters = lower(t(t ~= ' ' & t ~= '+' & t ~= '-'));
unit = any(t == 'i' | t == 'j' | t == 'I' | t == 'J');
if unit && (any(t >= '0' & t <= '9') || strcmp(letters, 'i') || strcmp(letters, 'j'))
  error('m2cu:str2double', 'm2cu: str2double of a complex number (a text with i or j beside a number) is not supported yet');
end
end

function [value, k, ok] = read_number(t, k)
% C++'s `is >> value` from t(k): a sign, digits with a point, an exponent. The significant
% digits make an integer mantissa (exact up to 15 of them) times a power of ten.
n = numel(t);
value = 0;
ok = false;
negative = false;
if k <= n && (t(k) == '+' || t(k) == '-')
  negative = t(k) == '-';
  k = k + 1;
end
mantissa = 0;
digits = 0;
exponent = 0;
whole_zeros = 0;
fraction_zeros = 0;
seen = false;
fraction = false;
while k <= n && ((t(k) >= '0' && t(k) <= '9') || (t(k) == '.' && ~fraction))
  if t(k) == '.'
    fraction = true;
  else
    seen = true;
    d = t(k) - '0';
    if d ~= 0 && digits <= 15
      pending = whole_zeros + fraction_zeros;
      mantissa = mantissa * 10^(pending + 1) + d;
      digits = digits + pending + 1;
      exponent = exponent - fraction_zeros - fraction;
      whole_zeros = 0;
      fraction_zeros = 0;
    elseif d ~= 0
      digits = 16;
    elseif digits == 0
      exponent = exponent - fraction;
    elseif fraction
      fraction_zeros = fraction_zeros + 1;
    else
      whole_zeros = whole_zeros + 1;
    end
  end
  k = k + 1;
end
if ~seen
  return
end
exponent = exponent + whole_zeros;
if k <= n && (t(k) == 'e' || t(k) == 'E')
  k = k + 1;
  esign = 1;
  if k <= n && (t(k) == '+' || t(k) == '-')
    if t(k) == '-'
      esign = -1;
    end
    k = k + 1;
  end
  if k > n || t(k) < '0' || t(k) > '9'
    return
  end
  e = 0;
  while k <= n && t(k) >= '0' && t(k) <= '9'
    e = min(e * 10 + (t(k) - '0'), 100000);
    k = k + 1;
  end
  exponent = exponent + esign * e;
end
[value, ok] = scaled(mantissa, digits, exponent);
if negative
  value = -value;
end
end

function [value, ok] = scaled(mantissa, digits, exponent)
% mantissa * 10^exponent, correctly rounded; ok = false where C++ fails (an overflow).
ok = true;
value = 0;
if mantissa == 0 || digits + exponent <= -324
  return
end
if digits + exponent > 309
  ok = false;
  return
end
if digits > 15 || exponent > 22 + 15 - digits || exponent < -22
  error('m2cu:str2double', 'm2cu: str2double of a number with more than 15 significant digits, or a power of ten beyond 22 from them, is not supported yet (it needs a correct rounding that m2cu does not do yet)');
end
if exponent > 22
  value = mantissa * 10^(exponent - 22) * 1e22;
elseif exponent >= 0
  value = mantissa * 10^exponent;
else
  value = mantissa / 10^(-exponent);
end
end
