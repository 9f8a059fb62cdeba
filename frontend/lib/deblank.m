function s = deblank(s)
%DEBLANK  The char row s without its trailing whitespace and null characters, as MATLAB and
%   Octave remove them.
%
%   m2cu's own MATLAB source: char rows; a row of blanks only stops (its empty result has a
%   different size in MATLAB and Octave).
if ~ischar(s)
  error('deblank: S argument must be a string or cellstring');
end
if size(s, 1) ~= 1
  error('m2cu:deblank', 'm2cu: deblank of a char matrix or an empty char is not supported yet');
end
k = find(~(isspace(s) | s == 0));
if isempty(k)
  error('m2cu:deblank', 'm2cu: deblank of blanks only is 1-by-0 in MATLAB and 0-by-0 in Octave, which m2cu does not choose between; test the text first');
end
s = s(1:k(end));
end
