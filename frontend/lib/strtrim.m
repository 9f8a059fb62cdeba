function s = strtrim(s)
%STRTRIM  The char row s without its leading and trailing whitespace (space, tab, newline,
%   vertical tab, form feed, carriage return), as MATLAB and Octave remove it.
%
%   m2cu's own MATLAB source: char rows; a row of whitespace only (1-by-0 in MATLAB, 0-by-0 in
%   Octave) stops.
if ~ischar(s)
  error('strtrim: S argument must be a string or cellstring');
end
if size(s, 1) ~= 1
  error('m2cu:strtrim', 'm2cu: strtrim of a char matrix or an empty char is not supported yet');
end
k = find(~isspace(s));
if isempty(k)
  error('m2cu:strtrim', 'm2cu: strtrim of whitespace only is 1-by-0 in MATLAB and 0-by-0 in Octave, which m2cu does not choose between; test any(~isspace(s)) first');
end
s = s(k(1):k(end));
end
