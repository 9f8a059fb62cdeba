function t = strrep(s, ptn, rep)
%STRREP  The char row s with every occurrence of ptn replaced by rep, as MATLAB and Octave
%   replace them: overlapping occurrences are each replaced (strrep('aaa', 'aa', 'b') is
%   'bb'), and an empty ptn replaces nothing.
%
%   m2cu's own MATLAB source: char rows (no cell arrays of text); a result with no characters
%   (0-by-0 in Octave) stops.
if ~ischar(s) || ~ischar(ptn) || ~ischar(rep)
  error('strrep: STR, PTN, and REP arguments must be strings or cell arrays of strings');
end
if size(s, 1) > 1 || size(ptn, 1) > 1 || size(rep, 1) > 1
  error('m2cu:strrep', 'm2cu: strrep of a char matrix is not supported yet');
end
n = numel(s);
p = numel(ptn);
t = blanks(0);
k = 1;
if p > 0
  for j = 1:n - p + 1
    if all(s(j:j + p - 1) == ptn)
      if j >= k
        t = [t s(k:j - 1)];
      end
      t = [t rep];
      k = j + p;
    end
  end
end
t = [t s(k:n)];
if isempty(t)
  error('m2cu:strrep', 'm2cu: strrep whose result has no characters is 1-by-0 in MATLAB and 0-by-0 in Octave, which m2cu does not choose between; test the text first');
end
end
