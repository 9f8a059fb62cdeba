function s = mat2str(x, n)
%MAT2STR  The text of a real 2-D numeric or logical array as MATLAB code: `[1 2.5;-3 4]`, a
%   scalar without brackets, `[]` for an empty array; numbers as `%.15g` writes them (`%.<n>g`
%   with a precision n), logicals as `true` and `false`, as Octave 7.3 writes them.
%
%   m2cu's own MATLAB source: real values (a complex one stops), no 'class' argument; text is
%   Octave 7.3's "Invalid call" (MATLAB quotes it).
if nargin < 2
  n = 15;
end
if ~(isnumeric(x) || islogical(x))
  error('Invalid call to mat2str');
end
if ~isreal(x)
  error('m2cu:mat2str', 'm2cu: mat2str of a complex value is not supported yet');
end
fmt = ['%.' num2str(fix(n)) 'g'];
[m, nc] = size(x);
if m * nc == 0
  s = '[]';
elseif m * nc == 1
  s = element_text(x(1), fmt);
else
  s = '[';
  for r = 1:m
    for c = 1:nc
      s = [s element_text(x(r, c), fmt)];
      if c < nc
        s = [s ' '];
      end
    end
    if r < m
      s = [s ';'];
    end
  end
  s = [s ']'];
end
end

function t = element_text(v, fmt)
% One element: a logical as true or false, a number with the format.
if islogical(v)
  if v
    t = 'true';
  else
    t = 'false';
  end
else
  t = sprintf(fmt, v);
end
end
