function s = strcat(a, b, c, d, e, f)
%STRCAT  Char rows joined side by side, each with its trailing whitespace removed first, as
% MATLAB and Octave join char arguments (up to six of them; a number is its character code).
%   m2cu's own MATLAB source: char rows and numbers; cells of texts are not supported yet.
s = m2cu_strcat_part(a);
if nargin >= 2
  s = [s, m2cu_strcat_part(b)];
end
if nargin >= 3
  s = [s, m2cu_strcat_part(c)];
end
if nargin >= 4
  s = [s, m2cu_strcat_part(d)];
end
if nargin >= 5
  s = [s, m2cu_strcat_part(e)];
end
if nargin >= 6
  s = [s, m2cu_strcat_part(f)];
end
if isempty(s)
  s = blanks(0);
end
end

function t = m2cu_strcat_part(x)
% One argument: a char row without its trailing whitespace, or the characters of numbers.
if ~ischar(x)
  t = char(x);
elseif size(x, 1) > 1
  error('m2cu:strcat', 'm2cu: strcat of a char matrix is not supported yet');
else
  n = numel(x);
  while n > 0 && (x(n) == ' ' || (x(n) >= 9 && x(n) <= 13) || x(n) == 0)
    n = n - 1;
  end
  t = blanks(0);
  for k = 1:n
    t(end+1) = x(k);
  end
end
end
